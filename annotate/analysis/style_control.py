"""Style-controlled Bradley-Terry ranking: model strengths with the answers' style held fixed.

Chatbot Arena's style control (Chiang et al. 2024, LMSYS blog "Does style matter?", August 2024;
the Arena paper's contextual Bradley-Terry, Chiang et al. 2024 section 5) asks how much of a model's
rating comes from *how* it answers (long, with headers, lists and bold) rather than *what* it
answers.  Each battle gets, besides the models' strengths, the style features of its two answers
(`annotate.analysis.style`) as extra columns of the logistic Bradley-Terry design:

    P(slot A wins) = 1 / (1 + exp(-(theta_a - theta_b + sum_f beta_f x_f)))

where x_f is the normalised difference (f_A - f_B) / (f_A + f_B) (0 when both are 0) of feature f,
scaled to unit standard deviation over the battles.  beta_f is the change in log-odds of winning per
standard deviation of that difference; the thetas are the strengths *at equal style*.  A tie is half
a win for each side (as in the plain ranking, `annotate.analysis.ranking`).

The features are scaled, not centred: the normalised difference changes sign when the slots are
swapped, so the model has no intercept, and subtracting a mean would add one (an advantage of
slot A of -sum_f beta_f mean_f).  Arena centres as well; with random slot assignment the mean is
near 0 and the two agree.  A feature that never varies (no answer has a header), or that is a
linear function of the features before it in every battle (bold spans always as many as list
items), has no coefficient and is left out of the fit, with the reason stated.

Fit: penalised maximum likelihood (ridge 1e-6 on every parameter, as the plain ranking, so a model
that won every battle keeps a finite rating) by Newton's method, vectorised over bootstrap
resamples.  Data are one row per *item* (the two answers and so the features are fixed per item;
its votes are counts), sorted by model pair, so the Hessian is assembled from per-pair sums (the
strengths block is a weighted graph Laplacian) without a dense battles-by-models matrix: a million
battles cost a few passes over a million rows per Newton step.

Intervals: up to `SANDWICH_ABOVE` items, the items are resampled with all their votes (a cluster
bootstrap, `annotate.analysis.bootstrap.resample_counts`); both fits, with and without style, are
refitted on the *same* resamples (warm-started at the full-data estimate), and 95 % percentile
intervals are taken for ratings and coefficients.  Its cost is resamples x items, so above that many
items both fits take the normal approximation instead: estimate +- 1.96 standard errors from the
item-clustered sandwich covariance H^-1 J H^-1, the bootstrap's large-sample limit (the same unit,
the item with all its votes; `annotate.analysis.style_control_intervals`).  ``intervals`` chooses
either method outright.  Rank = 1 + the number of models of the same connected component whose
lower bound lies above this model's upper bound (as in `annotate.analysis.ranking`); the rank change
is the plain rank minus the controlled rank (positive: the model rises when style is
held fixed).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.bootstrap import DEFAULT_N_BOOT, MIN_UNITS_FOR_INTERVAL
from annotate.analysis.estimate import json_number
from annotate.analysis.reasons import not_enough
from annotate.analysis.style import FEATURES, TOKENIZER, normalised_difference
from annotate.analysis.style_control_intervals import bootstrap_bounds, sandwich_bounds
from annotate.analysis.style_newton import by_pair, newton, sorted_rows
from annotate.frame_codes import checked_codes, mapped

__all__ = [
    "INTERVAL_METHODS",
    "RIDGE",
    "SANDWICH_ABOVE",
    "StyleCoefficient",
    "StyleControl",
    "StyleDesign",
    "StyleRow",
    "choose_interval_method",
    "fit_style_control",
    "style_control",
    "style_design",
    "style_design_from_arrays",
]

RIDGE = 1e-6
"""Ridge on every parameter (see the module docstring); the plain ranking uses the same."""

SANDWICH_ABOVE = 20_000
"""Items above which ``intervals="auto"`` takes the sandwich instead of the bootstrap (docs/scaling.md:
near it the two intervals' widths agree within a few per cent, and 1000 refits of both fits cost about
10 s of CPU at 20,000 items; `bench/bench_style_control.py --compare`)."""

INTERVAL_METHODS = ("auto", "bootstrap", "sandwich")
"""auto: the bootstrap up to `SANDWICH_ABOVE` items, the sandwich above; or either one outright."""

WINNER_COLUMN = {"model_a": 0, "model_b": 1, "tie": 2, "both_bad": 2, "tie (bothbad)": 2}
"""Battle outcome -> vote column: 0 slot A won, 1 slot B won, 2 tie."""

_SCALE = 400.0 / math.log(10.0)
_ANCHOR = 1000.0


@dataclass(frozen=True, eq=False)
class StyleDesign:
    """The battles as one row per item: its models, its style differences, its votes.

    Attributes:
        models: model names; indexes below refer to this tuple.
        model_a, model_b: ``(R,)`` int64 model index in slot A and in slot B.
        features: ``(R, F)`` normalised differences (f_A - f_B) / (f_A + f_B), unscaled.
        votes: ``(R, 3)`` float64 votes: slot A won, slot B won, tie.
        feature_names: the F feature names.
        items: ``(R,)`` item ids (object array), for the record.
    """

    models: tuple[str, ...]
    model_a: np.ndarray
    model_b: np.ndarray
    features: np.ndarray
    votes: np.ndarray
    feature_names: tuple[str, ...]
    items: np.ndarray

    @property
    def n_items(self) -> int:
        return int(self.model_a.size)

    @property
    def n_battles(self) -> int:
        return round(float(self.votes.sum()))


def style_design_from_arrays(
    models: Sequence[str], model_a: Any, model_b: Any, counts_a: Any, counts_b: Any, votes: Any,
    feature_names: Sequence[str] = FEATURES, items: Any = None,
) -> StyleDesign:
    """A design from arrays: per item the model indexes, the two sides' feature counts ``(R, F)``,
    the votes ``(R, 3)`` (A won, B won, tie).  Rows without votes are dropped."""
    a = np.asarray(model_a, dtype=np.int64).ravel()
    b = np.asarray(model_b, dtype=np.int64).ravel()
    v = np.asarray(votes, dtype=np.float64).reshape(-1, 3)
    k = len(models)
    if not (a.size == b.size == v.shape[0]):
        raise ValueError("model_a, model_b and votes must have one row per item")
    if ((a < 0) | (a >= k) | (b < 0) | (b >= k)).any():
        raise ValueError("model index out of range")
    if (a == b).any():
        raise ValueError(f"a model cannot battle itself: {models[int(a[a == b][0])]!r}")
    if (v < 0).any():
        raise ValueError("vote counts must be non-negative")
    x = normalised_difference(counts_a, counts_b)
    if x.size == 0:
        x = np.zeros((a.size, len(feature_names)))
    if x.shape != (a.size, len(feature_names)):
        raise ValueError(f"style counts must have shape ({a.size}, {len(feature_names)}), got {x.shape}")
    ids = np.arange(a.size).astype(object) if items is None else np.asarray(items, dtype=object)
    keep = v.sum(axis=1) > 0
    return StyleDesign(tuple(str(m) for m in models), a[keep], b[keep], x[keep], v[keep], tuple(feature_names),
                       ids[keep])


def style_design(
    battles: pd.DataFrame, counts: pd.DataFrame, feature_names: Sequence[str] = FEATURES,
) -> tuple[StyleDesign, int]:
    """The design of the battles whose item has style counts, and how many battles had none.

    battles: one row per vote, columns item, model_a, model_b, winner (as
    `annotate.analysis.cohorts.battles_from_votes` gives them). counts: one row per item, columns
    item and, per feature f, ``f_a`` and ``f_b`` (counts of slot A's and slot B's answer).
    Models are sorted by name.
    """
    missing = [c for c in ("item", "model_a", "model_b", "winner") if c not in battles.columns]
    if missing:
        raise ValueError(f"battles are missing columns {missing}")
    wanted = [f"{f}_{side}" for side in "ab" for f in feature_names]
    absent = [c for c in ("item", *wanted) if c not in counts.columns]
    if absent:
        raise ValueError(f"style counts are missing columns {absent}")
    outcome = mapped(battles["winner"], WINNER_COLUMN)
    if outcome.isna().any():
        bad = sorted({str(w) for w in battles.loc[outcome.isna(), "winner"]})[:5]
        raise ValueError(f"unknown winner values {bad}; expected {sorted(WINNER_COLUMN)}")
    c, row_of, coded = _rows_of_counts(battles, counts)
    known = row_of >= 0
    dropped = int((~known).sum())
    if not known.any():
        return style_design_from_arrays((), [], [], np.zeros((0, len(feature_names))),
                                        np.zeros((0, len(feature_names))), np.zeros((0, 3)), feature_names), dropped
    # One row per item (sorted by id), its models from its first battle, its votes counted by outcome: integer
    # codes and bincounts instead of a groupby and a crosstab over the battles' strings.
    if coded is None:
        codes, item_ids = pd.factorize(battles["item"].astype(str).to_numpy()[known], sort=True)
    else:  # the codes sort as the texts do
        codes, distinct = pd.factorize(coded[0][known].astype(np.int64), sort=True)
        item_ids = coded[1].to_numpy(dtype=object)[distinct]
    n_items = len(item_ids)
    by_item = np.argsort(codes, kind="stable")
    first = by_item[np.searchsorted(codes[by_item], np.arange(n_items))]  # each item's first battle
    outcomes = outcome.to_numpy()[known].astype(np.int64)
    votes = np.bincount(codes * 3 + outcomes, minlength=3 * n_items).reshape(n_items, 3).astype(np.float64)
    model_a = battles["model_a"].astype(str).to_numpy()[known][first]
    model_b = battles["model_b"].astype(str).to_numpy()[known][first]
    models = sorted(set(model_a) | set(model_b))
    position = pd.Index(models)
    rows = c.iloc[row_of[known][first]]
    counts_a = rows[[f"{f}_a" for f in feature_names]].to_numpy(dtype=np.float64)
    counts_b = rows[[f"{f}_b" for f in feature_names]].to_numpy(dtype=np.float64)
    design = style_design_from_arrays(models, position.get_indexer(model_a), position.get_indexer(model_b),
                                      counts_a, counts_b, votes, feature_names, np.asarray(item_ids, dtype=object))
    return design, dropped


def _rows_of_counts(battles: pd.DataFrame, counts: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, Any]:
    """The counts, one row per item (its first), each battle's row of them (-1: none), and the battles' item
    codes (`annotate.frame_codes.checked_codes`; None: none). By the codes alone when both frames carry codes
    of the same labels; each distinct item looked up once when the battles alone do; each battle otherwise."""
    coded = checked_codes(battles, "item")
    mine = None if coded is None else checked_codes(counts, "item")
    if mine is not None and (mine[1] is coded[1] or mine[1].equals(coded[1])):
        kept = np.sort(np.unique(mine[0], return_index=True)[1])  # drop_duplicates("item"): each item's first row
        lookup = np.full(len(coded[1]), -1, dtype=np.int64)
        lookup[mine[0][kept]] = np.arange(kept.size)
        return counts.iloc[kept], lookup[coded[0]], coded
    c = counts.assign(item=counts["item"].astype(str)).drop_duplicates("item").set_index("item")
    if coded is None:
        return c, c.index.get_indexer(battles["item"].astype(str)), None  # each battle's row of counts
    return c, c.index.get_indexer(coded[1])[coded[0]], coded  # each distinct item looked up once


def to_rating(theta: np.ndarray) -> np.ndarray:
    """Elo-like ratings 1000 + 400 theta / ln 10, as `annotate.analysis.ranking.to_rating`."""
    return _ANCHOR + _SCALE * np.asarray(theta)


@dataclass(frozen=True)
class StyleCoefficient:
    """One style feature's coefficient.

    Attributes:
        feature: its name (`annotate.analysis.style.FEATURES`).
        estimate: change in log-odds that slot A wins per standard deviation of the normalised
            difference (NaN when not estimated); ci_low, ci_high: 95 % interval
            (item bootstrap or item-clustered sandwich, as the fit says).
        scale: the standard deviation of the normalised difference over the battles (the unit of
            the coefficient); per_unit = estimate / scale is the change per unit of the difference
            itself (all of slot A's feature and none of slot B's: +1).
        n_battles_with: battles where at least one of the two answers has the feature.
        reason: why there is no estimate or no interval (``not enough data (n = ...: why)``), else None.
    """

    feature: str
    estimate: float
    ci_low: float
    ci_high: float
    scale: float
    n_battles_with: int
    reason: str | None = None

    @property
    def per_unit(self) -> float:
        return self.estimate / self.scale if self.scale > 0 else float("nan")

    def to_json(self) -> dict[str, Any]:
        return {"feature": self.feature, "estimate": json_number(self.estimate),
                "ci": [json_number(self.ci_low), json_number(self.ci_high)], "scale": json_number(self.scale),
                "per_unit": json_number(self.per_unit), "n_battles_with": self.n_battles_with,
                "reason": self.reason}


@dataclass(frozen=True)
class StyleRow:
    """One model's line: the plain and the style-controlled rating side by side.

    Attributes:
        plain_rating, plain_ci, plain_rank: Bradley-Terry without style features (the same items).
        rating, ci, rank: with the style features held fixed.
        rank_change: plain_rank - rank (positive: the model rises when style is held fixed).
        plain_position, position: place in the order by point rating (1 = best), within the
            component; position_change = plain_position - position.
        n_battles: this model's battles; component: its connected component (numbered from 1).
    """

    model: str
    plain_rating: float
    plain_ci: tuple[float, float]
    plain_rank: int
    rating: float
    ci: tuple[float, float]
    rank: int
    rank_change: int
    plain_position: int
    position: int
    n_battles: int
    component: int = 1

    @property
    def position_change(self) -> int:
        return self.plain_position - self.position

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model, "component": self.component, "n_battles": self.n_battles,
            "plain": {"rating": json_number(self.plain_rating), "ci": [json_number(v) for v in self.plain_ci],
                      "rank": self.plain_rank, "position": self.plain_position},
            "controlled": {"rating": json_number(self.rating), "ci": [json_number(v) for v in self.ci],
                           "rank": self.rank, "position": self.position},
            "rank_change": self.rank_change, "position_change": self.position_change,
        }


@dataclass(frozen=True)
class StyleControl:
    """The style-controlled ranking beside the plain one, the coefficients, and what entered.

    Attributes:
        rows: one per model, by component, then by controlled rating (best first).
        coefficients: one per requested feature (those without variation carry a reason).
        n_items, n_battles: items (clusters) and votes that entered; n_models: models ranked.
        n_boot, seed: the bootstrap asked for (drawn only when interval_method is ``"bootstrap"``); unit: what
            it resamples, the cluster of the sandwich (always ``"items"``).
        reason: why there is no ranking at all (``not enough data ...``), else None.
        interval_reason: why ratings and coefficients have no interval although resamples were
            asked for (one item: nothing to resample), else None.
        notes: what else a reader must know (e.g. models never compared).
        interval_method: where the intervals come from: ``"bootstrap"`` (n_boot item resamples),
            ``"sandwich"`` (normal approximation, item-clustered sandwich covariance) or ``"none"``;
            interval_method_reason: why that one (one line).
    """

    rows: tuple[StyleRow, ...]
    coefficients: tuple[StyleCoefficient, ...]
    n_items: int
    n_battles: int
    n_boot: int
    seed: int | None
    reason: str | None = None
    tokenizer: str = TOKENIZER
    notes: tuple[str, ...] = field(default_factory=tuple)
    unit: str = "items"
    interval_reason: str | None = None
    interval_method: str = "bootstrap"
    interval_method_reason: str | None = None

    @property
    def n_models(self) -> int:
        return len(self.rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "n_items": self.n_items, "n_battles": self.n_battles, "n_models": self.n_models,
            "n_boot": self.n_boot, "seed": self.seed, "unit": self.unit, "reason": self.reason,
            "interval_reason": self.interval_reason,
            "interval_method": self.interval_method, "interval_method_reason": self.interval_method_reason,
            "tokenizer": self.tokenizer, "features": [c.feature for c in self.coefficients],
            "coefficients": [c.to_json() for c in self.coefficients],
            "models": [r.to_json() for r in self.rows], "notes": list(self.notes),
        }


def _components(design: StyleDesign) -> np.ndarray:
    """Connected component of each model (numbered from 1, most models first), as the plain ranking."""
    from annotate.analysis.ranking import components, pair_counts_from_arrays

    counts = pair_counts_from_arrays(design.models, np.column_stack([design.model_a, design.model_b]), design.votes)
    return components(counts)


def _ranks(rating: np.ndarray, low: np.ndarray, high: np.ndarray, group: np.ndarray) -> np.ndarray:
    """1 + models of the same group whose interval lies wholly above (point ratings where no interval)."""
    lo = np.where(np.isfinite(low), low, rating)
    hi = np.where(np.isfinite(high), high, rating)
    above = (lo[None, :] > hi[:, None]) & (group[None, :] == group[:, None])
    return 1 + above.sum(axis=1)


def _positions(rating: np.ndarray, group: np.ndarray) -> np.ndarray:
    """1 + models of the same group with a higher point rating."""
    higher = (rating[None, :] > rating[:, None]) & (group[None, :] == group[:, None])
    return 1 + higher.sum(axis=1)


def _collinear(x: np.ndarray, varies: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """For each feature, -1 when it adds a direction of its own, else the index of the last earlier
    kept feature it depends on: a column that is (up to 1e-8 of its length) a linear combination of
    the earlier kept columns, weighted by votes, cannot be estimated apart from them."""
    w = np.sqrt(weight)[:, None]
    out = np.full(x.shape[1], -1, dtype=np.int64)
    kept: list[int] = []
    for j in range(x.shape[1]):
        if not varies[j]:
            continue
        column = x[:, j] * w[:, 0]
        if kept:
            basis = x[:, kept] * w
            coef, *_ = np.linalg.lstsq(basis, column, rcond=None)
            residual = column - basis @ coef
            if np.linalg.norm(residual) <= 1e-8 * np.linalg.norm(column):
                out[j] = kept[int(np.argmax(np.abs(coef)))]
                continue
        kept.append(j)
    return out


def choose_interval_method(intervals: str, n_items: int, n_boot: int, above: int | None = None
                           ) -> tuple[str, str | None]:
    """Where the intervals come from, and why in one line: ``intervals`` is one of `INTERVAL_METHODS`,
    ``above`` the items above which auto takes the sandwich (None: `SANDWICH_ABOVE`)."""
    above = SANDWICH_ABOVE if above is None else above
    if intervals not in INTERVAL_METHODS:
        raise ValueError(f"intervals must be one of {', '.join(INTERVAL_METHODS)}, not {intervals!r}")
    if n_boot <= 0:
        return "none", "no intervals asked for (0 resamples)"
    if n_items < MIN_UNITS_FOR_INTERVAL:
        return "none", not_enough(n_items, "items", "nothing to resample")
    sandwich = ("normal approximation, estimate +- 1.96 se from the item-clustered sandwich covariance of "
                "the penalised fit (the bootstrap's large-sample limit)")
    resamples = f"{n_boot} item resamples, both fits refitted on each"
    if intervals == "sandwich":
        return "sandwich", f"asked for: {sandwich}"
    if intervals == "bootstrap":
        return "bootstrap", f"asked for: {resamples}"
    if n_items > above:
        return "sandwich", f"{n_items:,} items > {above:,}: {sandwich}"
    return "bootstrap", f"{n_items:,} items <= {above:,}: {resamples}"


def fit_style_control(
    design: StyleDesign, n_boot: int = DEFAULT_N_BOOT, seed: int | None = 0, *, ridge: float = RIDGE,
    intervals: str = "auto", sandwich_above: int | None = None,
) -> StyleControl:
    """Both fits on one design, with item-bootstrap or sandwich intervals (see the module docstring and
    `choose_interval_method`)."""
    names = design.feature_names
    k, n_items, n_battles = len(design.models), design.n_items, design.n_battles
    if k < 2 or n_items == 0:
        why = "fewer than two models" if n_items else "no battle with both answers stored"
        reason = not_enough(n_items, "items", why)
        coefficients = tuple(StyleCoefficient(f, math.nan, math.nan, math.nan, math.nan, 0, reason) for f in names)
        return StyleControl((), coefficients, n_items, n_battles, n_boot, seed, reason, interval_method="none")
    per_battle = design.votes.sum(axis=1)
    mean = (design.features * per_battle[:, None]).sum(axis=0) / per_battle.sum()
    sd = np.sqrt(((design.features - mean) ** 2 * per_battle[:, None]).sum(axis=0) / per_battle.sum())
    with_feature = ((design.features != 0) * per_battle[:, None]).sum(axis=0)
    varies = sd > 1e-12
    same_as = _collinear(design.features / np.where(varies, sd, 1.0), varies, per_battle)
    kept = varies & (same_as < 0)
    x = design.features[:, kept] / sd[kept]
    rows = sorted_rows(k, design.model_a, design.model_b, x, design.votes)
    pairs = by_pair(rows)
    f = rows.n_features
    theta_p, _ = newton(pairs, pairs.n[None, :], pairs.s[None, :], np.zeros((1, k)), np.zeros((1, 0)), ridge)
    theta_c, beta_c = newton(rows, rows.n[None, :], rows.s[None, :], theta_p, np.zeros((1, f)), ridge)
    group = _components(design)
    method, method_reason = choose_interval_method(intervals, n_items, n_boot, sandwich_above)
    if method == "bootstrap":
        bounds_p, bounds_c, bounds_b = bootstrap_bounds(rows, pairs, theta_p, theta_c, beta_c, n_boot, seed, ridge,
                                                        to_rating)
    elif method == "sandwich":
        bounds_p, bounds_c, bounds_b = sandwich_bounds(rows, theta_p, theta_c, beta_c, group, ridge, to_rating)
    else:
        bounds_p, bounds_c, bounds_b = np.full((k, 2), np.nan), np.full((k, 2), np.nan), np.full((f, 2), np.nan)
    rating_p, rating_c = to_rating(theta_p[0]), to_rating(theta_c[0])
    rank_p = _ranks(rating_p, bounds_p[:, 0], bounds_p[:, 1], group)
    rank_c = _ranks(rating_c, bounds_c[:, 0], bounds_c[:, 1], group)
    pos_p, pos_c = _positions(rating_p, group), _positions(rating_c, group)
    battles_of = np.bincount(design.model_a, per_battle, k) + np.bincount(design.model_b, per_battle, k)
    out_rows = tuple(
        StyleRow(design.models[m], float(rating_p[m]), (float(bounds_p[m, 0]), float(bounds_p[m, 1])), int(rank_p[m]),
                 float(rating_c[m]), (float(bounds_c[m, 0]), float(bounds_c[m, 1])), int(rank_c[m]),
                 int(rank_p[m] - rank_c[m]), int(pos_p[m]), int(pos_c[m]), round(float(battles_of[m])),
                 int(group[m]))
        for m in np.lexsort((-rating_c, group))
    )
    no_interval = None
    if n_boot > 0 and n_items < MIN_UNITS_FOR_INTERVAL:
        no_interval = not_enough(n_items, "items", "nothing to resample")
    coefficients, j = [], 0
    for i, name in enumerate(names):
        if kept[i]:
            coefficients.append(StyleCoefficient(name, float(beta_c[0, j]), float(bounds_b[j, 0]),
                                                 float(bounds_b[j, 1]), float(sd[i]), round(float(with_feature[i])),
                                                 no_interval))
            j += 1
        else:
            if varies[i]:
                why = f"moves with {names[int(same_as[i])]}"
            else:
                why = "no answer has it" if with_feature[i] == 0 else "the same in every battle"
            coefficients.append(StyleCoefficient(name, math.nan, math.nan, math.nan, float(sd[i]),
                                                 round(float(with_feature[i])), not_enough(n_battles, "battles", why)))
    notes = []
    if group.max() > 1:
        notes.append(f"NOT ONE SCALE: the models fall into {int(group.max())} groups never compared; ratings and "
                     "ranks compare models of the same group only.")
    return StyleControl(out_rows, tuple(coefficients), n_items, n_battles, n_boot, seed, None, TOKENIZER,
                        tuple(notes), interval_reason=no_interval, interval_method=method,
                        interval_method_reason=method_reason)


def style_control(
    battles: pd.DataFrame, counts: pd.DataFrame, *, n_boot: int = DEFAULT_N_BOOT, seed: int | None = 0,
    features: Sequence[str] = FEATURES, ridge: float = RIDGE, intervals: str = "auto",
) -> tuple[StyleControl, int]:
    """The style-controlled ranking of ``battles`` (see `style_design` for the frames); also returns
    how many battles were left out because their item has no stored answers to count."""
    design, dropped = style_design(battles, counts, features)
    return fit_style_control(design, n_boot, seed, ridge=ridge, intervals=intervals), dropped
