"""The anchoring effect of a display mode against `none`: its interval and its randomization p-value,
from re-draws of the experiment's design or, failing those, permutations of the observed conditions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.anchoring.resampling import _MAX_CELLS, _interval, _permutation_p, two_way_bootstrap_sums
from annotate.analysis.anchoring.results import PERMUTATION, REDRAWN, Effect
from annotate.analysis.anchoring.rows import _F, BASELINE, _check, _features, _ratio, _Rows, _rows, infer_design
from annotate.analysis.estimate import Estimate


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
