"""The ratings matrix: building it from long judgments, its value domain and levels of measurement,
its encoding as category indices, and the per-unit counts every coefficient is summed from.

See the package docstring (`annotate.analysis.agreement`) for how the matrix relates to its categories.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from annotate.analysis.bootstrap import Part, estimates_on_shared_resamples
from annotate.analysis.estimate import Estimate

Level = Literal["nominal", "ordinal", "interval", "ratio"]
"""Stevens' level of measurement of the labels."""

LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")


def _is_number(value: object) -> bool:
    """A real, finite number that is not a bool (numpy scalars included)."""
    if isinstance(value, bool | np.bool_):
        return False
    if isinstance(value, int | np.integer):
        return True
    return isinstance(value, float | np.floating) and math.isfinite(float(value))


def _plain(value: Any) -> Any:
    """numpy scalars as Python scalars (for ids and categories that end up in JSON)."""
    return value.item() if isinstance(value, np.generic) else value


def value_domain(categories: Sequence[Any]) -> np.ndarray:
    """The values the matrix uses for ``categories``, shape ``(len(categories),)``, float64.

    All-numeric categories stand for themselves; anything else is coded ``0 .. len - 1``.
    """
    if len(categories) > 0 and all(_is_number(c) for c in categories):
        return np.asarray([float(c) for c in categories], dtype=np.float64)
    return np.arange(len(categories), dtype=np.float64)


def _factorize(values: pd.Series) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Integer codes and sorted distinct values (first-seen order if the values do not sort)."""
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(values, sort=False)
    return codes, tuple(_plain(u) for u in uniques)


def _categories_for(observed: Sequence[Any], order: Sequence[Any] | None) -> tuple[Any, ...]:
    """The category list: ``order`` if given (it must cover every observed label), else sorted labels."""
    if order is not None:
        categories = tuple(_plain(c) for c in order)
        if len(set(categories)) != len(categories):
            raise ValueError("order lists a category twice")
        unknown = [c for c in observed if c not in set(categories)]
        if unknown:
            raise ValueError(f"labels not in order: {sorted(map(str, unknown))[:5]}")
        return categories
    try:
        return tuple(sorted(observed))
    except TypeError:
        return tuple(sorted(observed, key=str))


def ratings_matrix(
    long_df: pd.DataFrame,
    unit: str = "unit",
    rater: str = "rater",
    label: str = "label",
    order: Sequence[Any] | None = None,
) -> tuple[np.ndarray, tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]:
    """Pivot long judgments into a ratings matrix.

    long_df: one row per judgment with columns ``unit``, ``rater``, ``label``; rows whose label is
    missing are dropped; a (unit, rater) pair may occur only once (ValueError otherwise: keep one
    judgment per rater and unit, e.g. the latest, before computing agreement).

    order: the category order.  Required for ordinal labels that are not numbers (e.g.
    ``["bad", "ok", "good"]``); it must contain every label and may contain unused categories.
    Without it the categories are the sorted distinct labels.

    Returns ``(matrix, unit_ids, rater_ids, categories)``: ``matrix`` has shape
    ``(len(unit_ids), len(rater_ids))`` with NaN for missing; numeric labels are kept as numbers,
    other labels become integer codes into ``categories`` (see the module docstring).

    >>> df = pd.DataFrame({"unit": [1, 1, 2], "rater": ["a", "b", "a"], "label": ["x", "y", "x"]})
    >>> m, units, raters, cats = ratings_matrix(df)
    >>> m.tolist(), units, raters, cats
    ([[0.0, 1.0], [0.0, nan]], (1, 2), ('a', 'b'), ('x', 'y'))
    """
    missing_cols = [c for c in (unit, rater, label) if c not in long_df.columns]
    if missing_cols:
        raise ValueError(f"ratings are missing columns {missing_cols}")
    df = long_df.loc[long_df[label].notna(), [unit, rater, label]]
    observed = [_plain(v) for v in pd.unique(df[label])]
    categories = _categories_for(observed, order)
    unit_codes, unit_ids = _factorize(df[unit])
    rater_codes, rater_ids = _factorize(df[rater])
    if all(_is_number(c) for c in categories) and categories:
        values = df[label].astype(np.float64).to_numpy()
    else:
        values = pd.Categorical(df[label], categories=list(categories)).codes.astype(np.float64)
    key = unit_codes.astype(np.int64) * len(rater_ids) + rater_codes
    uniq, counts = np.unique(key, return_counts=True)
    if (counts > 1).any():
        first = int(uniq[counts > 1][0])
        raise ValueError(
            f"unit {unit_ids[first // len(rater_ids)]!r} has more than one rating by rater "
            f"{rater_ids[first % len(rater_ids)]!r}; keep one judgment per (unit, rater)"
        )
    matrix = np.full((len(unit_ids), len(rater_ids)), np.nan)
    matrix[unit_codes, rater_codes] = values
    return matrix, unit_ids, rater_ids, categories


def _encode(matrix: np.ndarray, categories: Sequence[Any] | None) -> tuple[np.ndarray, np.ndarray]:
    """Category index per cell (``-1`` where missing) and the value domain.

    Returns ``(idx, domain)``: ``idx`` int64 of the matrix's shape, ``domain`` float64 ``(V,)``.
    """
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"the ratings matrix must be 2-D (units x raters), got shape {m.shape}")
    present = ~np.isnan(m)
    vals = m[present]
    domain = np.unique(vals) if categories is None else value_domain(categories)
    if np.unique(domain).size != domain.size:
        raise ValueError("categories contain duplicate values")
    sorter = np.argsort(domain, kind="stable")
    sorted_domain = domain[sorter]
    idx = np.full(m.shape, -1, dtype=np.int64)
    if vals.size == 0:
        return idx, domain
    if domain.size == 0:
        raise ValueError("the ratings matrix holds values but categories is empty")
    pos = np.clip(np.searchsorted(sorted_domain, vals), 0, domain.size - 1)
    outside = sorted_domain[pos] != vals
    if outside.any():
        raise ValueError(f"ratings matrix holds values outside the categories, e.g. {vals[outside][:3].tolist()}")
    idx[present] = sorter[pos]
    return idx, domain


def _value_counts(idx: np.ndarray, n_values: int) -> np.ndarray:
    """Per-unit category counts, shape ``(n_units, n_values)`` float64 (Krippendorff's n_uc)."""
    n_units = idx.shape[0]
    rows, _ = np.nonzero(idx >= 0)
    flat = rows * n_values + idx[idx >= 0]
    return np.bincount(flat, minlength=n_units * n_values).reshape(n_units, n_values).astype(np.float64)


def _n_raters(idx: np.ndarray, unit_mask: np.ndarray) -> int:
    """Raters with at least one rating in the selected units."""
    return int((idx[unit_mask] >= 0).any(axis=0).sum())


def _on_rows(n_rows: int, parts: Sequence[Part], n_boot: int, seed: int | None) -> list[dict[str, Estimate]]:
    """The parts' estimates on one draw of resamples of the matrix's ``n_rows`` units."""
    return estimates_on_shared_resamples(parts, n_rows, n_boot=n_boot, seed=seed, by_pattern=True)
