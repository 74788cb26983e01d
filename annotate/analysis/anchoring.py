"""Anchoring on LLM suggestions: how far annotators follow a suggestion, and whether showing it
changes their answers (DESIGN.md section 6).

Input: one row per judgment (`anchoring_frame` in `annotate.store.suggestion_frames` builds it),
with columns

    annotator           str   who judged
    item                str   what was judged
    condition           str   display mode D: none, upfront, after, on_request
    suggestion          str   the label suggested (slot space / grade as text); NaN: no suggestion
    suggestion_correct  bool  suggestion == gold; NaN when gold is unknown (planted ones are False)
    planted             bool  the suggestion was planted wrong on purpose
    initial_label       str   the label committed before the suggestion was shown (`after`); NaN otherwise
    final_label         str   the label submitted
    gold                str   the known right answer; NaN when unknown
    time_ms             num   active time on the item, milliseconds
    shown               bool  optional: the suggestion was on screen (on_request: revealed)

Measures (per condition D, over judgments with a suggestion):

- agree = [final = suggestion]; agreement rate P(agree).
- over-reliance P(agree | suggestion wrong); under-reliance P(not agree | suggestion right).
- anchoring effect Δ_D = P(agree | D, wrong) − P(agree | none, wrong): what showing the
  suggestion adds to following it when it is wrong (the rubber-stamp rate above baseline). Also
  the change in accuracy P(final = gold | D) − P(final = gold | none).
- 95 % intervals: a two-way cluster ("pigeonhole") bootstrap that resamples annotators and items
  independently; a row's weight is (times its annotator was drawn) × (times its item was drawn)
  (Owen 2007, "The pigeonhole bootstrap", Ann. Appl. Stat. 1(2); mildly conservative).
- p-value of Δ_D: a randomization test (Edgington & Onghena 2007, "Randomization Tests", ch. 1
  and 6); two-sided, p = (1 + #{|Δ*| ≥ |Δ|}) / (1 + R). Given `redrawn` (R re-draws of the
  conditions by the experiment's own design rules, `annotate.experiment.redraw_conditions`: the
  same assignments, modes and rule, other seeds, planted items held fixed) and a frame with
  `assignment_id`, Δ* is Δ_D recomputed on the observed answers under each re-drawn condition
  assignment (`randomization` = "redrawn design"). Without them (a bare frame, the simulation) the
  fallback permutes the observed conditions within each annotator for `within` designs and across
  annotators for `between` designs (`randomization` = "permutation").
- in `after`: switch rate P(final ≠ initial); switch to the suggestion P(final = suggestion |
  initial ≠ suggestion); harmful switches (initial right, final wrong) and beneficial ones.
- fast accepts: agreeing with the suggestion in under `fast_ms` (default 3000 ms) of active time.
- per-annotator susceptibility: P(agree | wrong, shown) − P(agree | wrong, none), the baseline
  being the annotator's own `none` judgments when there are any, else everyone's.
- shift in the label distribution against `none` (total variation distance).
- the LLM's accuracy against gold and against the labels made under each condition: agreement with
  labels made while seeing the suggestion flatters the LLM.

Every rate is an `Estimate` whose `n_units` is items, `n_raters` annotators and `n_pairable` the
number of judgments in its denominator. Undefined rates (no judgment in the denominator) are NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.estimate import Estimate, json_number

__all__ = [
    "REQUIRED_COLUMNS",
    "AnchoringResult",
    "AnnotatorSusceptibility",
    "ConditionSummary",
    "Effect",
    "LabelShift",
    "LlmAccuracy",
    "SwitchStats",
    "analyse_anchoring",
    "anchoring_effect",
    "infer_design",
]

REQUIRED_COLUMNS = (
    "annotator", "item", "condition", "suggestion", "suggestion_correct", "planted", "initial_label",
    "final_label", "gold", "time_ms",
)
BASELINE = "none"
REDRAWN = "redrawn design"
"""The randomization test re-drew the conditions with the experiment's own design rules."""
PERMUTATION = "permutation"
"""The randomization test permuted the observed conditions (within annotators, or across them)."""
MODES_ORDER = ("none", "upfront", "after", "on_request")
_F = 10  # features per condition (see _features)
_MAX_CELLS = 1 << 22


# -- results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConditionSummary:
    """Rates for one display mode, over judgments that had a suggestion."""

    condition: str
    n: int
    """Judgments with a suggestion."""
    n_annotators: int
    n_items: int
    agree: Estimate
    over_reliance: Estimate
    """P(agree | suggestion wrong)."""
    under_reliance: Estimate
    """P(not agree | suggestion right)."""
    accuracy: Estimate
    """P(final = gold), over judgments of items with gold."""
    n_wrong: int
    n_right: int
    n_planted: int
    median_time_ms: float
    fast_accepts: int
    """Judgments agreeing with the suggestion in under the threshold."""
    fast_accept_rate: float
    """fast_accepts / n."""
    reveal_rate: float | None = None
    """Share of judgments whose suggestion was on screen (on_request: revealed); None if unknown."""

    def to_json(self) -> dict[str, Any]:
        return {
            "condition": self.condition, "n": self.n, "n_annotators": self.n_annotators, "n_items": self.n_items,
            "agree": self.agree.to_json(), "over_reliance": self.over_reliance.to_json(),
            "under_reliance": self.under_reliance.to_json(), "accuracy": self.accuracy.to_json(),
            "n_wrong": self.n_wrong, "n_right": self.n_right, "n_planted": self.n_planted,
            "median_time_ms": json_number(self.median_time_ms), "fast_accepts": self.fast_accepts,
            "fast_accept_rate": json_number(self.fast_accept_rate), "reveal_rate": json_number(self.reveal_rate),
        }


@dataclass(frozen=True)
class Effect:
    """The anchoring effect of one display mode against `none`."""

    mode: str
    delta: Estimate
    """Δ_D = P(agree | D, wrong) − P(agree | none, wrong), with its two-way cluster bootstrap interval."""
    p_value: float
    """Randomization test of Δ_D = 0 (two-sided); NaN when it cannot be run."""
    n_permutations: int
    delta_accuracy: Estimate
    """P(final = gold | D) − P(final = gold | none)."""
    design: str
    """`within` or `between`: how the design assigned the conditions."""
    randomization: str = PERMUTATION
    """How the test re-assigned the conditions: `redrawn design` (the experiment's own design rules
    re-run with other seeds) or `permutation` (the fallback when the design inputs are not at hand)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode, "delta": self.delta.to_json(), "p_value": json_number(self.p_value),
            "n_permutations": self.n_permutations, "delta_accuracy": self.delta_accuracy.to_json(),
            "design": self.design, "randomization": self.randomization,
        }


@dataclass(frozen=True)
class SwitchStats:
    """Two-stage (`after`) judgments: how the answer changed once the suggestion appeared."""

    n: int
    """`after` judgments with both an initial and a final label."""
    switches: int
    switch_rate: float
    initial_disagreed: int
    """Judgments whose initial label differed from the suggestion."""
    to_suggestion: int
    """Of those, how many switched to the suggestion."""
    to_suggestion_rate: float
    n_gold: int
    """Switches on items with gold."""
    harmful: int
    """Right (= gold) at first, wrong at the end."""
    beneficial: int
    """Wrong at first, right at the end."""

    def to_json(self) -> dict[str, Any]:
        return {k: json_number(v) if isinstance(v, float) else v for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class AnnotatorSusceptibility:
    """One annotator's following of wrong suggestions, against a baseline."""

    annotator: str
    n_wrong_shown: int
    agree_wrong_shown: float
    """P(agree | wrong) under the display modes that show the suggestion (NaN if none)."""
    n_wrong_none: int
    agree_wrong_none: float
    """The baseline: this annotator's own `none` rate, or everyone's when they have none."""
    baseline: str
    """`own` or `pooled`."""
    susceptibility: float
    """agree_wrong_shown − agree_wrong_none."""

    def to_json(self) -> dict[str, Any]:
        return {k: json_number(v) if isinstance(v, float) else v for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class LabelShift:
    """The distribution of final labels under one condition, and how far it is from `none`."""

    condition: str
    n: int
    shares: tuple[tuple[str, float], ...]
    """(label, share) in label order."""
    tvd: float
    """Total variation distance to the `none` distribution, ½ Σ |p − q| (NaN for `none`)."""
    mean_shift: float | None = None
    """Grades only: mean grade minus the mean under `none`."""

    def to_json(self) -> dict[str, Any]:
        return {
            "condition": self.condition, "n": self.n, "shares": {k: json_number(v) for k, v in self.shares},
            "tvd": json_number(self.tvd), "mean_shift": json_number(self.mean_shift),
        }


@dataclass(frozen=True)
class LlmAccuracy:
    """How often the LLM's (real, not planted) suggestion matches a reference."""

    reference: str
    """`gold`, or `labels under <condition>`."""
    accuracy: Estimate

    def to_json(self) -> dict[str, Any]:
        return {"reference": self.reference, "accuracy": self.accuracy.to_json()}


@dataclass(frozen=True)
class AnchoringResult:
    """Everything the report's "Suggestions" section shows."""

    conditions: tuple[ConditionSummary, ...]
    effects: tuple[Effect, ...]
    switches: SwitchStats | None
    annotators: tuple[AnnotatorSusceptibility, ...]
    label_shift: tuple[LabelShift, ...]
    llm_accuracy: tuple[LlmAccuracy, ...]
    design: str
    fast_ms: int
    n_boot: int
    n_perm: int
    seed: int
    notes: tuple[str, ...] = field(default_factory=tuple)
    randomization: str = PERMUTATION
    """`redrawn design` or `permutation`: how the effects' randomization test re-assigned conditions."""

    def to_json(self) -> dict[str, Any]:
        return {
            "design": self.design, "fast_ms": self.fast_ms, "n_boot": self.n_boot, "n_perm": self.n_perm,
            "seed": self.seed, "randomization": self.randomization,
            "conditions": [c.to_json() for c in self.conditions],
            "effects": [e.to_json() for e in self.effects],
            "switches": None if self.switches is None else self.switches.to_json(),
            "annotators": [a.to_json() for a in self.annotators],
            "label_shift": [s.to_json() for s in self.label_shift],
            "llm_accuracy": [a.to_json() for a in self.llm_accuracy], "notes": list(self.notes),
        }


# -- preparing the rows --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rows:
    """The frame as arrays: one row per judgment with a suggestion."""

    annotators: np.ndarray
    """Names, shape (n_a,)."""
    items: np.ndarray
    a_idx: np.ndarray
    i_idx: np.ndarray
    conditions: tuple[str, ...]
    c_idx: np.ndarray
    agree: np.ndarray
    wrong: np.ndarray
    right: np.ndarray
    gold_known: np.ndarray
    correct: np.ndarray
    planted: np.ndarray
    assignment: np.ndarray | None = None
    """Assignment ids (column `assignment_id`), when the frame has them: needed to re-draw the design."""


def _check(frame: pd.DataFrame) -> None:
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"the anchoring frame lacks columns: {', '.join(missing)}")


def _as_bool(series: pd.Series) -> np.ndarray:
    """True where the value is truthy and not missing."""
    return np.array([False if pd.isna(v) else bool(v) for v in series], dtype=bool)


def _known(series: pd.Series) -> np.ndarray:
    return series.notna().to_numpy(dtype=bool)


def _rows(frame: pd.DataFrame) -> _Rows:
    data = frame[frame["suggestion"].notna() & frame["final_label"].notna()]
    conditions = tuple(sorted(data["condition"].unique(), key=_mode_key))
    a_codes, annotators = pd.factorize(data["annotator"], sort=True)
    i_codes, items = pd.factorize(data["item"], sort=True)
    c_idx = data["condition"].map({c: k for k, c in enumerate(conditions)}).to_numpy(dtype=np.int64)
    suggestion = data["suggestion"].astype(str).to_numpy()
    final = data["final_label"].astype(str).to_numpy()
    known = _known(data["suggestion_correct"])
    correct_s = _as_bool(data["suggestion_correct"])
    gold_known = _known(data["gold"])
    gold = data["gold"].astype(str).to_numpy()
    assignment = None
    if "assignment_id" in data.columns and data["assignment_id"].notna().all():
        assignment = data["assignment_id"].to_numpy(dtype=np.int64)
    return _Rows(
        np.asarray(annotators), np.asarray(items), a_codes.astype(np.int64), i_codes.astype(np.int64),
        conditions, c_idx, suggestion == final, known & ~correct_s, known & correct_s, gold_known,
        gold_known & (final == gold), _as_bool(data["planted"]), assignment,
    )


def _mode_key(mode: str) -> tuple[int, str]:
    return (MODES_ORDER.index(mode) if mode in MODES_ORDER else len(MODES_ORDER), mode)


def infer_design(frame: pd.DataFrame) -> str:
    """`between` when every annotator judged under one condition only, else `within`."""
    per = frame.groupby("annotator")["condition"].nunique()
    return "between" if len(per) and int(per.max()) <= 1 else "within"


def _features(rows: _Rows) -> np.ndarray:
    """(n_rows, _F × n_conditions) indicators whose weighted sums give every per-condition rate.

    Per condition: rows, agree, wrong, agree & wrong, right, disagree & right, gold known,
    correct, not planted, agree & not planted.
    """
    n, c = len(rows.c_idx), len(rows.conditions)
    base = np.stack([
        np.ones(n), rows.agree, rows.wrong, rows.agree & rows.wrong, rows.right, ~rows.agree & rows.right,
        rows.gold_known, rows.correct, ~rows.planted, rows.agree & ~rows.planted,
    ], axis=1).astype(np.float64)
    out = np.zeros((n, _F * c))
    for k in range(c):
        mask = rows.c_idx == k
        out[mask, _F * k : _F * (k + 1)] = base[mask]
    return out


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


# -- bootstrap and permutations ------------------------------------------------------------------


def _counts(rng: np.random.Generator, n: int, b: int) -> np.ndarray:
    """(b, n) draw counts of n-with-replacement resamples of n clusters."""
    idx = rng.integers(0, n, size=(b, n)) + (np.arange(b) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)


def two_way_bootstrap_sums(
    features: np.ndarray, a_idx: np.ndarray, i_idx: np.ndarray, n_boot: int, seed: int | None,
) -> np.ndarray:
    """Feature sums of `n_boot` two-way cluster resamples, shape (n_boot, k).

    Annotators and items are resampled independently (each n-out-of-n with replacement); a row's
    weight is the product of its annotator's and its item's draw counts.
    """
    n_rows, k = features.shape
    if n_boot <= 0 or n_rows == 0:
        return np.empty((0, k))
    n_a, n_i = int(a_idx.max()) + 1, int(i_idx.max()) + 1
    rng = np.random.default_rng(seed)
    block = max(1, _MAX_CELLS // max(n_rows, n_a, n_i))
    out = []
    done = 0
    while done < n_boot:
        b = min(block, n_boot - done)
        wa = _counts(rng, n_a, b)
        wi = _counts(rng, n_i, b)
        out.append((wa[:, a_idx] * wi[:, i_idx]) @ features)
        done += b
    return np.concatenate(out, axis=0)


def _interval(samples: np.ndarray, level: float) -> tuple[float, float]:
    finite = samples[np.isfinite(samples)]
    if samples.size == 0 or finite.size < 0.5 * samples.size:
        return (float("nan"), float("nan"))
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(finite, [tail, 1.0 - tail])
    return (float(lo), float(hi))


def _permutation_p(
    agree: np.ndarray, is_mode: np.ndarray, groups: np.ndarray, design: str, n_perm: int, seed: int | None,
) -> float:
    """Two-sided randomization p-value of the difference in agree rates between `is_mode` rows and
    the rest, permuting labels within `groups` (within) or whole groups' labels (between)."""
    n = len(agree)
    n1 = int(is_mode.sum())
    if n_perm <= 0 or n1 == 0 or n1 == n:
        return float("nan")
    y = agree.astype(np.float64)
    observed = y[is_mode].mean() - y[~is_mode].mean()
    rng = np.random.default_rng(seed)
    exceed = 0
    done = 0
    if design == "between":
        codes, uniq = pd.factorize(groups)
        label = np.zeros(len(uniq), dtype=bool)
        label[codes[is_mode]] = True
        if len(np.unique(label)) < 2:
            return float("nan")
        block = max(1, _MAX_CELLS // max(n, 1))
        while done < n_perm:
            b = min(block, n_perm - done)
            order = np.argsort(rng.random((b, len(uniq))), axis=1)
            x = label[order][:, codes]
            diff = _diffs(x, y)
            exceed += int(np.sum(np.abs(diff) >= abs(observed) - 1e-12))
            done += b
    else:
        order0 = np.argsort(groups, kind="stable")
        g = pd.factorize(groups[order0])[0].astype(np.float64)
        ys, xs = y[order0], is_mode[order0]
        block = max(1, _MAX_CELLS // max(n, 1))
        while done < n_perm:
            b = min(block, n_perm - done)
            perm = np.argsort(g[None, :] + rng.random((b, n)), axis=1)
            x = xs[perm]
            diff = _diffs(x, ys)
            exceed += int(np.sum(np.abs(diff) >= abs(observed) - 1e-12))
            done += b
    return (1 + exceed) / (1 + n_perm)


def _diffs(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per row of boolean x (b, n): mean of y where x minus mean of y where not x."""
    xf = x.astype(np.float64)
    n1 = xf.sum(axis=1)
    s1 = xf @ y
    return _ratio(s1, n1) - _ratio(y.sum() - s1, len(y) - n1)


# -- the analysis ----------------------------------------------------------------------------------


def anchoring_effect(
    frame: pd.DataFrame, mode: str, *, design: str | None = None, n_boot: int = 1000, n_perm: int = 1000,
    seed: int = 0, level: float = 0.95, redrawn: Any = None,
) -> Effect:
    """Δ_mode against `none` with its interval and randomization p-value (see the module docstring).

    A lighter entry point than `analyse_anchoring` (used by the simulation). redrawn: as there.
    """
    _check(frame)
    rows = _rows(frame)
    design = design or infer_design(frame)
    redraw, _ = _redrawn_codes(rows, redrawn)
    return _effects(rows, [mode], design, n_boot, n_perm, seed, level, redraw=redraw)[0]


def _redrawn_codes(rows: _Rows, redrawn: Any) -> tuple[tuple[np.ndarray, tuple[str, ...]] | None, str | None]:
    """(codes of every row under each re-draw (R, n_rows), labels), or None and why not."""
    if redrawn is None:
        return None, None
    if rows.assignment is None:
        return None, "the frame has no assignment ids"
    ids = pd.Index(np.asarray(redrawn.ids, dtype=np.int64))
    where = ids.get_indexer(rows.assignment)
    if (where < 0).any():
        return None, "judgments of assignments outside the stored design"
    codes = np.asarray(redrawn.codes)
    if codes.ndim != 2 or codes.shape[0] == 0:
        return None, None
    return (codes[:, where], tuple(redrawn.labels)), None


def _redrawn_p(agree: np.ndarray, codes: np.ndarray, mode_code: int, base_code: int, observed: float) -> float:
    """Two-sided p of Δ from Δ* under each re-drawn assignment; codes: (R, n) condition codes."""
    y = agree.astype(np.float64)
    exceed = 0
    block = max(1, _MAX_CELLS // max(len(y), 1))
    for start in range(0, len(codes), block):
        part = codes[start : start + block]
        x1, x0 = part == mode_code, part == base_code
        diff = _ratio(x1 @ y, x1.sum(axis=1)) - _ratio(x0 @ y, x0.sum(axis=1))
        exceed += int(np.sum(np.abs(diff) >= abs(observed) - 1e-12))
    return (1 + exceed) / (1 + len(codes))


def _effects(
    rows: _Rows, modes: Sequence[str], design: str, n_boot: int, n_perm: int, seed: int, level: float,
    boots: np.ndarray | None = None, total: np.ndarray | None = None,
    redraw: tuple[np.ndarray, tuple[str, ...]] | None = None,
) -> list[Effect]:
    if BASELINE not in rows.conditions:
        return []
    if total is None or boots is None:
        feats = _features(rows)
        total = feats.sum(axis=0)
        boots = two_way_bootstrap_sums(feats, rows.a_idx, rows.i_idx, n_boot, seed)
    b0 = rows.conditions.index(BASELINE) * _F
    out = []
    for offset, mode in enumerate(modes):
        if mode not in rows.conditions or mode == BASELINE:
            continue
        k = rows.conditions.index(mode) * _F

        def delta(s: np.ndarray, k: int = k) -> np.ndarray:
            return _ratio(s[..., k + 3], s[..., k + 2]) - _ratio(s[..., b0 + 3], s[..., b0 + 2])

        def delta_acc(s: np.ndarray, k: int = k) -> np.ndarray:
            return _ratio(s[..., k + 7], s[..., k + 6]) - _ratio(s[..., b0 + 7], s[..., b0 + 6])

        pair = (rows.c_idx == rows.conditions.index(mode)) | (rows.c_idx == rows.conditions.index(BASELINE))
        wrong = pair & rows.wrong
        n_items = len(np.unique(rows.i_idx[wrong]))
        n_ann = len(np.unique(rows.a_idx[wrong]))
        lo, hi = _interval(delta(boots), level) if len(boots) else (np.nan, np.nan)
        est = Estimate(float(delta(total)), lo, hi, n_items, n_ann, int(wrong.sum()))
        lo2, hi2 = _interval(delta_acc(boots), level) if len(boots) else (np.nan, np.nan)
        gold_rows = pair & rows.gold_known
        acc = Estimate(float(delta_acc(total)), lo2, hi2, len(np.unique(rows.i_idx[gold_rows])),
                       len(np.unique(rows.a_idx[gold_rows])), int(gold_rows.sum()))
        if redraw is not None and mode in redraw[1] and BASELINE in redraw[1]:
            codes, labels = redraw
            observed = float(delta(total))
            p = (_redrawn_p(rows.agree[rows.wrong], codes[:, rows.wrong], labels.index(mode), labels.index(BASELINE),
                            observed) if np.isfinite(observed) else float("nan"))
            n_draws = len(codes) if np.isfinite(p) else 0
            out.append(Effect(mode, est, p, n_draws, acc, design, REDRAWN))
            continue
        is_mode = rows.c_idx[wrong] == rows.conditions.index(mode)
        groups = rows.a_idx[wrong]
        p = _permutation_p(rows.agree[wrong], is_mode, groups, design, n_perm,
                           None if seed is None else seed + 7919 * (offset + 1))
        out.append(Effect(mode, est, p, n_perm if np.isfinite(p) else 0, acc, design, PERMUTATION))
    return out


def analyse_anchoring(
    frame: pd.DataFrame,
    *,
    design: str | None = None,
    fast_ms: int = 3000,
    n_boot: int = 1000,
    n_perm: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    redrawn: Any = None,
) -> AnchoringResult:
    """Every measure of the module docstring, for every condition in `frame`.

    design: `within` or `between` (how the fallback permutation test permutes); None: inferred
    (between when each annotator judged under one condition only). redrawn: re-draws of the
    experiment's conditions (`annotate.experiment.ConditionDraws`: `ids`, `labels`, `codes`); with it
    and a frame column `assignment_id` the randomization test uses them (its R is their number, not
    n_perm), else it falls back to permuting. Rows without a suggestion or a final label are left
    out of the reliance measures.
    """
    _check(frame)
    if design not in (None, "within", "between"):
        raise ValueError(f"design must be 'within' or 'between', not {design!r}")
    design = design or infer_design(frame)
    rows = _rows(frame)
    notes: list[str] = []
    if len(rows.c_idx) == 0:
        notes.append("no judgment was made with a suggestion linked to it")
    feats = _features(rows)
    total = feats.sum(axis=0)
    boots = two_way_bootstrap_sums(feats, rows.a_idx, rows.i_idx, n_boot, seed)
    data = frame[frame["suggestion"].notna() & frame["final_label"].notna()]
    summaries = []
    for k, condition in enumerate(rows.conditions):
        summaries.append(_summary(rows, data, k, condition, total, boots, fast_ms, level))
    if BASELINE not in rows.conditions and rows.conditions:
        notes.append("no `none` condition: the anchoring effect needs the baseline")
    redraw, why_not = _redrawn_codes(rows, redrawn)
    if why_not:
        notes.append(f"the randomization test permutes conditions instead of re-drawing the design: {why_not}")
    effects = _effects(rows, [c for c in rows.conditions if c != BASELINE], design, n_boot, n_perm, seed, level,
                       boots=boots, total=total, redraw=redraw)
    randomization = REDRAWN if effects and all(e.randomization == REDRAWN for e in effects) else PERMUTATION
    if design == "between" and len(rows.annotators) < 6 and effects:
        notes.append(f"between annotators with {len(rows.annotators)} annotators: the randomization test has few"
                     " arrangements, so its p-value cannot be small")
    return AnchoringResult(
        conditions=tuple(summaries), effects=tuple(effects), switches=_switches(frame),
        annotators=tuple(_susceptibility(frame)), label_shift=tuple(_label_shift(frame)),
        llm_accuracy=tuple(_llm_accuracy(rows, frame, total, boots, level, n_boot, seed)),
        design=design, fast_ms=fast_ms, n_boot=n_boot,
        n_perm=len(redraw[0]) if randomization == REDRAWN and redraw is not None else n_perm, seed=seed,
        notes=tuple(notes), randomization=randomization,
    )


def _summary(
    rows: _Rows, data: pd.DataFrame, k: int, condition: str, total: np.ndarray, boots: np.ndarray, fast_ms: int,
    level: float,
) -> ConditionSummary:
    o = k * _F
    mask = rows.c_idx == k
    n_items = len(np.unique(rows.i_idx[mask]))
    n_ann = len(np.unique(rows.a_idx[mask]))

    def est(num: int, den: int, complement: bool = False, sub: np.ndarray | None = None) -> Estimate:
        value = _ratio(total[o + num], total[o + den])
        samples = _ratio(boots[:, o + num], boots[:, o + den]) if len(boots) else np.empty(0)
        lo, hi = _interval(samples, level)
        in_den = mask if sub is None else mask & sub
        return Estimate(float(value), lo, hi, len(np.unique(rows.i_idx[in_den])),
                        len(np.unique(rows.a_idx[in_den])), int(total[o + den]))

    part = data[(data["condition"] == condition).to_numpy()]
    agree = rows.agree[mask]
    times = pd.to_numeric(part["time_ms"], errors="coerce").to_numpy(dtype=np.float64)
    fast = int(np.sum(agree & (times < fast_ms)))
    reveal = None
    if "shown" in part.columns:
        reveal = float(np.mean(_as_bool(part["shown"]))) if len(part) else float("nan")
    return ConditionSummary(
        condition=condition, n=int(mask.sum()), n_annotators=n_ann, n_items=n_items,
        agree=est(1, 0), over_reliance=est(3, 2, sub=rows.wrong), under_reliance=est(5, 4, sub=rows.right),
        accuracy=est(7, 6, sub=rows.gold_known), n_wrong=int(total[o + 2]), n_right=int(total[o + 4]),
        n_planted=int(np.sum(rows.planted[mask])),
        median_time_ms=float(np.nanmedian(times)) if np.isfinite(times).any() else float("nan"),
        fast_accepts=fast, fast_accept_rate=fast / int(mask.sum()) if mask.any() else float("nan"),
        reveal_rate=reveal,
    )


def _switches(frame: pd.DataFrame) -> SwitchStats | None:
    part = frame[(frame["condition"] == "after") & frame["initial_label"].notna() & frame["final_label"].notna()]
    if part.empty:
        return None
    initial = part["initial_label"].astype(str).to_numpy()
    final = part["final_label"].astype(str).to_numpy()
    has_s = part["suggestion"].notna().to_numpy()
    suggestion = part["suggestion"].astype(str).to_numpy()
    gold_known = part["gold"].notna().to_numpy()
    gold = part["gold"].astype(str).to_numpy()
    switched = initial != final
    disagreed = has_s & (initial != suggestion)
    moved = disagreed & (final == suggestion)
    harmful = switched & gold_known & (initial == gold) & (final != gold)
    beneficial = switched & gold_known & (initial != gold) & (final == gold)
    n = len(part)
    return SwitchStats(
        n=n, switches=int(switched.sum()), switch_rate=float(switched.mean()),
        initial_disagreed=int(disagreed.sum()), to_suggestion=int(moved.sum()),
        to_suggestion_rate=float(moved.sum() / disagreed.sum()) if disagreed.any() else float("nan"),
        n_gold=int((switched & gold_known).sum()), harmful=int(harmful.sum()), beneficial=int(beneficial.sum()),
    )


def _susceptibility(frame: pd.DataFrame) -> list[AnnotatorSusceptibility]:
    data = frame[frame["suggestion"].notna() & frame["final_label"].notna()]
    known = _known(data["suggestion_correct"])
    wrong = known & ~_as_bool(data["suggestion_correct"])
    data = data[wrong]
    agree = (data["suggestion"].astype(str) == data["final_label"].astype(str)).to_numpy()
    none = (data["condition"] == BASELINE).to_numpy()
    shown = ~none
    pooled = float(agree[none].mean()) if none.any() else float("nan")
    out = []
    for name in sorted(data["annotator"].unique()):
        mine = (data["annotator"] == name).to_numpy()
        n_s, n_n = int((mine & shown).sum()), int((mine & none).sum())
        rate_s = float(agree[mine & shown].mean()) if n_s else float("nan")
        own = n_n > 0
        rate_n = float(agree[mine & none].mean()) if own else pooled
        n_base = n_n if own else int(none.sum())
        out.append(AnnotatorSusceptibility(
            str(name), n_s, rate_s, n_base, rate_n, "own" if own else "pooled", rate_s - rate_n,
        ))
    return out


def _label_shift(frame: pd.DataFrame) -> list[LabelShift]:
    data = frame[frame["final_label"].notna()]
    if data.empty:
        return []
    labels = sorted(data["final_label"].astype(str).unique(), key=_label_key)
    grades = all(_is_int(v) for v in labels)
    shares: dict[str, np.ndarray] = {}
    means: dict[str, float] = {}
    for condition, part in data.groupby("condition"):
        counts = part["final_label"].astype(str).value_counts()
        vec = np.array([counts.get(label, 0) for label in labels], dtype=np.float64)
        shares[str(condition)] = vec / vec.sum()
        if grades:
            means[str(condition)] = float(part["final_label"].astype(int).mean())
    base = shares.get(BASELINE)
    out = []
    for condition in sorted(shares, key=_mode_key):
        vec = shares[condition]
        tvd = float("nan") if base is None or condition == BASELINE else float(0.5 * np.abs(vec - base).sum())
        shift = None
        if grades and BASELINE in means:
            shift = float("nan") if condition == BASELINE else means[condition] - means[BASELINE]
        n = int((data["condition"] == condition).sum())
        out.append(LabelShift(condition, n, tuple(zip(labels, map(float, vec), strict=True)), tvd, shift))
    return out


def _llm_accuracy(
    rows: _Rows, frame: pd.DataFrame, total: np.ndarray, boots: np.ndarray, level: float, n_boot: int, seed: int,
) -> list[LlmAccuracy]:
    out = []
    per_item = frame[frame["suggestion"].notna() & frame["gold"].notna() & ~_as_bool(frame["planted"])]
    per_item = per_item.drop_duplicates("item")
    if len(per_item):
        hit = (per_item["suggestion"].astype(str) == per_item["gold"].astype(str)).to_numpy(dtype=np.float64)
        rng = np.random.default_rng(seed + 104729)
        samples = (_counts(rng, len(hit), n_boot) @ hit) / len(hit) if n_boot > 0 else np.empty(0)
        lo, hi = _interval(samples, level)
        out.append(LlmAccuracy("gold", Estimate(float(hit.mean()), lo, hi, len(hit), 0, len(hit))))
    for k, condition in enumerate(rows.conditions):
        o = k * _F
        samples = _ratio(boots[:, o + 9], boots[:, o + 8]) if len(boots) else np.empty(0)
        lo, hi = _interval(samples, level)
        mask = (rows.c_idx == k) & ~rows.planted
        out.append(LlmAccuracy(
            f"labels under {condition}",
            Estimate(float(_ratio(total[o + 9], total[o + 8])), lo, hi, len(np.unique(rows.i_idx[mask])),
                     len(np.unique(rows.a_idx[mask])), int(total[o + 8])),
        ))
    return out


def _is_int(value: str) -> bool:
    try:
        int(value)
    except ValueError:
        return False
    return True


def _label_key(label: str) -> tuple[int, float, str]:
    order = ("A", "B", "tie", "both_bad")
    if label in order:
        return (0, order.index(label), label)
    if _is_int(label):
        return (1, int(label), label)
    return (2, 0, label)
