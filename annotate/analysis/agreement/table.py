"""The agreement table the report shows: every coefficient of one ratings matrix on one draw of resamples,
pairwise Cohen's kappas, their JSON, and Krippendorff's reading of alpha."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from annotate.analysis.agreement.alpha import _alpha_part
from annotate.analysis.agreement.coded import CodedRatings, as_coded
from annotate.analysis.agreement.cohen import KappaWeights, _cohen_part, _pair_scores
from annotate.analysis.agreement.counts import _count_part
from annotate.analysis.agreement.matrix import LEVELS, Level, _on_rows, _plain
from annotate.analysis.bootstrap import DEFAULT_N_BOOT
from annotate.analysis.estimate import Estimate, json_number

Reliability = Literal["reliable", "tentative", "unreliable"]

COEFFICIENTS = ("alpha", "fleiss", "ac1", "percent", "cohen")
"""What an agreement table can hold (`annotate agreement --only`): Krippendorff's alpha, Fleiss'
kappa, Gwet's AC1, percent agreement and Cohen's kappa per pair of raters."""
_KEYS = {"alpha": "krippendorff_alpha", "fleiss": "fleiss_kappa", "ac1": "gwet_ac1", "percent": "percent_agreement",
         "cohen": "cohen_kappa"}


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
        asked: the coefficients computed (`COEFFICIENTS`); the others are None (no pairs for cohen).
    """

    level: Level
    krippendorff_alpha: Estimate | None
    fleiss_kappa: Estimate | None
    gwet_ac1: Estimate | None
    percent_agreement: Estimate | None
    cohen_kappa: tuple[PairKappa, ...]
    asked: tuple[str, ...] = COEFFICIENTS

    def to_json(self) -> dict[str, Any]:
        """``{"level", "krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "percent_agreement", "cohen_kappa"}``,
        without the keys of coefficients not asked for."""
        values = {"krippendorff_alpha": self.krippendorff_alpha, "fleiss_kappa": self.fleiss_kappa,
                  "gwet_ac1": self.gwet_ac1, "percent_agreement": self.percent_agreement}
        out: dict[str, Any] = {"level": self.level}
        for name in COEFFICIENTS:
            key = _KEYS[name]
            if name in self.asked:
                out[key] = ([pair.to_json() for pair in self.cohen_kappa] if name == "cohen"
                            else values[key].to_json())  # type: ignore[union-attr]
        return out


def agreement_table(
    matrix: np.ndarray | CodedRatings,
    level: Level,
    categories: Sequence[Any] | None,
    rater_ids: Sequence[Hashable],
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
    coefficients: Sequence[str] = COEFFICIENTS,
) -> AgreementTable:
    """Krippendorff's alpha, Fleiss' kappa, Gwet's AC1, percent agreement and pairwise Cohen's kappa,
    or only the `coefficients` named (the others are not computed).

    matrix: ``(n_units, n_raters)``, NaN for missing, as returned by `ratings_matrix`, or its
    `CodedRatings` (`coded_ratings`: no dense matrix, for many raters); rater_ids: one id per column.
    Weighted Cohen's kappas are computed at the ordinal level (on
    category positions) and above (interval, ratio: on the label values; see `cohen_kappa`).  Every
    interval is a 95 % percentile bootstrap over units with ``n_boot`` resamples seeded by ``seed``,
    drawn once for the table: each coefficient and pair sums the resampled units it uses.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    coded = as_coded(matrix, categories)
    if len(rater_ids) != coded.n_raters:
        shape = (coded.n_units, coded.n_raters)
        raise ValueError(f"need one rater id per column: {len(rater_ids)} ids for shape {shape}")
    first, second, _shared = coded.overlaps()  # the pairs that share no unit are left out anyway
    pairs = list(zip(first.tolist(), second.tolist(), strict=True))
    return pairs_table(coded, level, categories, rater_ids, pairs, n_boot=n_boot, seed=seed, coefficients=coefficients)


def pairs_table(
    matrix: np.ndarray | CodedRatings,
    level: Level,
    categories: Sequence[Any] | None,
    rater_ids: Sequence[Hashable],
    pairs: Sequence[tuple[int, int]],
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
    coefficients: Sequence[str] = COEFFICIENTS,
) -> AgreementTable:
    """`agreement_table` with Cohen's kappa for the given column pairs only (in that order; pairs
    that rated no unit in common are left out).  Every coefficient and pair is computed on one
    draw of resamples of the matrix's units."""
    coded = as_coded(matrix, categories)
    scores = _pair_scores(level, coded.domain, categories)
    kinds: tuple[KappaWeights, ...] = ("unweighted",) if level == "nominal" else ("unweighted", "linear", "quadratic")
    unknown = sorted(set(coefficients) - set(COEFFICIENTS))
    if unknown or not coefficients:
        raise ValueError(f"coefficients must be some of {', '.join(COEFFICIENTS)}, got {list(coefficients)}")
    asked = tuple(name for name in COEFFICIENTS if name in coefficients)
    counted = bool({"fleiss", "ac1", "percent"} & set(asked))
    pair_parts = [_cohen_part(coded, a, b, scores, kinds) for a, b in pairs] if "cohen" in asked else []
    shared = [(a, b) for (a, b), part in zip(pairs, pair_parts, strict=False) if part.n_units > 0]
    parts = ([_count_part(coded)] if counted else []) + ([_alpha_part(coded, level)] if "alpha" in asked else [])
    parts += [part for part in pair_parts if part.n_units > 0]
    found = _on_rows(coded.n_units, parts, n_boot, seed) if parts else []
    family = found.pop(0) if counted else {}
    alpha = found.pop(0) if "alpha" in asked else {}
    return AgreementTable(
        level=level,
        krippendorff_alpha=alpha.get("value"),
        fleiss_kappa=family.get("fleiss") if "fleiss" in asked else None,
        gwet_ac1=family.get("gwet") if "ac1" in asked else None,
        percent_agreement=family.get("percent") if "percent" in asked else None,
        cohen_kappa=tuple(PairKappa((rater_ids[a], rater_ids[b]), k["unweighted"], k.get("linear"), k.get("quadratic"))
                          for (a, b), k in zip(shared, found, strict=True)),
        asked=asked,
    )


def interpret_alpha(alpha: float) -> Reliability:
    """Krippendorff's (2004, *Content Analysis*, 2nd ed., section 11.4.4) reading of alpha.

    ``"reliable"`` for alpha >= 0.800; ``"tentative"`` (conclusions only tentatively) for
    0.667 <= alpha < 0.800; ``"unreliable"`` below 0.667 and for NaN (no evidence of reliability).
    """
    if not math.isfinite(alpha) or alpha < 0.667:
        return "unreliable"
    return "reliable" if alpha >= 0.800 else "tentative"
