"""The ratings matrix: building it from long judgments, its value domain and levels of measurement,
its encoding as category indices, and the per-unit counts every coefficient is summed from.

See the package docstring (`annotate.analysis.agreement`) for how the matrix relates to its categories.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from annotate.analysis.bootstrap import Part, estimates_on_shared_resamples
from annotate.analysis.estimate import Estimate

if TYPE_CHECKING:
    import pandas as pd

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
    import pandas as pd

    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(values, sort=False)
    return codes, tuple(_plain(u) for u in uniques.tolist())  # tolist: no scalar boxing per element


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

    >>> import pandas as pd
    >>> df = pd.DataFrame({"unit": [1, 1, 2], "rater": ["a", "b", "a"], "label": ["x", "y", "x"]})
    >>> m, units, raters, cats = ratings_matrix(df)
    >>> m.tolist(), units, raters, cats
    ([[0.0, 1.0], [0.0, nan]], (1, 2), ('a', 'b'), ('x', 'y'))
    """
    from annotate.analysis.agreement.coded import coded_ratings  # coded.py builds on this module's helpers

    coded, unit_ids, rater_ids, categories = coded_ratings(long_df, unit, rater, label, order)
    return coded.to_matrix(), unit_ids, rater_ids, categories


def _on_rows(n_rows: int, parts: Sequence[Part], n_boot: int, seed: int | None) -> list[dict[str, Estimate]]:
    """The parts' estimates on one draw of resamples of the table's ``n_rows`` units."""
    return estimates_on_shared_resamples(parts, n_rows, n_boot=n_boot, seed=seed, by_pattern=True)
