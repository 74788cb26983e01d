"""The anchoring frame checked and read into arrays (one row per judgment with a suggestion), and the
per-condition indicator features whose weighted sums give every rate."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

REQUIRED_COLUMNS = (
    "annotator", "item", "condition", "suggestion", "suggestion_correct", "planted", "initial_label",
    "final_label", "gold", "time_ms",
)
BASELINE = "none"


MODES_ORDER = ("none", "upfront", "after", "on_request")
_F = 10  # features per condition (see _features)


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
