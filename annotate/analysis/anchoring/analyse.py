"""`analyse_anchoring`: every measure of the package docstring for every condition of a frame."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.anchoring.effects import _effects, _redrawn_codes
from annotate.analysis.anchoring.resampling import _counts, _interval, two_way_bootstrap_sums
from annotate.analysis.anchoring.results import (
    PERMUTATION,
    REDRAWN,
    AnchoringResult,
    AnnotatorSusceptibility,
    ConditionSummary,
    LabelShift,
    LlmAccuracy,
    SwitchStats,
)
from annotate.analysis.anchoring.rows import (
    _F,
    BASELINE,
    _as_bool,
    _check,
    _features,
    _known,
    _mode_key,
    _ratio,
    _Rows,
    _rows,
    infer_design,
)
from annotate.analysis.estimate import Estimate


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
